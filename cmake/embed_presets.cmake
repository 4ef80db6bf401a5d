# cmake -DPRESET_DIR=data/presets -DOUTPUT=builtin_preset_files.cpp -P embed_presets.cmake
# Writes OUTPUT: the table settings/builtin_presets.cpp reads, one entry per
# PRESET_DIR/TASK/NAME.toml, each file's text as a raw string literal.
file(GLOB files RELATIVE ${PRESET_DIR} ${PRESET_DIR}/*/*.toml)
list(SORT files)
set(entries "")
foreach(file ${files})
  file(READ ${PRESET_DIR}/${file} text)
  string(FIND "${text}" ")dls_preset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${PRESET_DIR}/${file}: holds )dls_preset\", the end of the literal it is embedded in")
  endif()
  get_filename_component(task ${file} DIRECTORY)
  get_filename_component(name ${file} NAME)
  string(REGEX REPLACE "\\.toml$" "" name ${name})
  string(APPEND entries "    {\"${task}\", \"${name}\", R\"dls_preset(${text})dls_preset\"},\n")
endforeach()
list(LENGTH files count)
file(WRITE ${OUTPUT}.tmp
"// Written by cmake/embed_presets.cmake from data/presets: do not edit.
#include \"settings/embedded_presets.h\"

namespace dls::settings::embedded {
const PresetFile kPresetFiles[] = {
${entries}    {nullptr, nullptr, nullptr}};
const std::size_t kPresetFileCount = ${count};
}  // namespace dls::settings::embedded
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
