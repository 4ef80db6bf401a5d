# Warnings for the project's own code (dependency headers are SYSTEM includes).
function(dls_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()

# Every target that includes LibTorch reuses the library's precompiled header: parsing
# <torch/torch.h> costs ~17 s per file on a 2-core machine, loading the PCH 4.8 s (it is
# 600 MB; unity batches load it once for several files).
function(dls_reuse_pch target)
  if(DLS_USE_PCH)
    target_precompile_headers(${target} REUSE_FROM dls)
  endif()
endfunction()

# Compiles the target's sources in unity batches of DLS_UNITY_BATCH files (see
# CMakeLists.txt). Files in one batch share one translation unit, so names at namespace
# scope (anonymous namespaces included) must be unique across the files of a target.
#
# The batches are written here rather than by CMake's UNITY_BUILD, whose batch files
# include every source by its absolute path: that path then reaches the preprocessed text
# (line markers, __FILE__ in TORCH_CHECK and the test macros), so a clone in another folder
# never hit ccache's results (cmake/DlsCompilerCache.cmake). These batches name each file
# relative to the target's source folder, which is on the include path.
function(dls_unity_build target)
  if(NOT DLS_UNITY_BATCH GREATER 1)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  set(members "")
  foreach(source IN LISTS sources)
    get_filename_component(absolute "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    string(FIND "${absolute}" "${CMAKE_CURRENT_SOURCE_DIR}/" in_source)
    string(FIND "${absolute}" "${CMAKE_CURRENT_BINARY_DIR}/" in_build)
    # Generated files, files of other folders and files marked SKIP_UNITY_BUILD_INCLUSION
    # (call this after setting it) stay translation units of their own.
    get_source_file_property(skip "${source}" SKIP_UNITY_BUILD_INCLUSION)
    if(absolute MATCHES "\\.cpp$" AND in_source EQUAL 0 AND NOT in_build EQUAL 0 AND NOT skip)
      file(RELATIVE_PATH relative "${CMAKE_CURRENT_SOURCE_DIR}" "${absolute}")
      list(APPEND members "${relative}")
      set_source_files_properties("${source}" PROPERTIES HEADER_FILE_ONLY ON)
    endif()
  endforeach()
  list(LENGTH members total)
  set(index 0)
  set(first 0)
  while(first LESS total)
    list(SUBLIST members ${first} ${DLS_UNITY_BATCH} batch)
    math(EXPR first "${first} + ${DLS_UNITY_BATCH}")
    list(TRANSFORM batch REPLACE "(.+)" "#include \"\\1\"")
    list(JOIN batch "\n" includes)
    # Rewritten only when its list changes, so that reconfiguring rebuilds nothing.
    set(file "${CMAKE_CURRENT_BINARY_DIR}/unity/${target}_${index}.cpp")
    file(CONFIGURE OUTPUT "${file}" CONTENT "// Unity batch ${index} of ${target} (cmake/DlsCompileOptions.cmake).\n${includes}\n")
    target_sources(${target} PRIVATE "${file}")
    math(EXPR index "${index} + 1")
  endwhile()
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
endfunction()
