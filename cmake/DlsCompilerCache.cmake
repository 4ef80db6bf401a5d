# Compiles through ccache when it is installed (cmake/install_debian_deps.sh installs it):
# a clean build of sources that were built before on this machine, in any folder (a fresh
# clone, as CI makes), takes its objects and the precompiled header from the cache.
#
# What makes the cache hit across folders and with the precompiled header (ccache manual,
# "Precompiled headers" and "Compiling in different directories"):
#  - CCACHE_BASEDIR: absolute paths below the project's root are hashed as relative ones;
#  - sloppiness pch_defines,time_macros: required for precompiled headers; include_file_*:
#    a fresh clone's files are all new, which would otherwise stop direct-mode caching;
#  - -fpch-preprocess (GCC): the preprocessed text names the .gch, whose content is hashed.
# The build's own absolute paths stay out of the compile flags (tests/support/test_paths.h).
option(DLS_USE_CCACHE "Compile through ccache when it is installed" ON)

if(DLS_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(DLS_CCACHE_PROGRAM ccache)
  if(DLS_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${CMAKE_COMMAND} -E env
        CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${DLS_CCACHE_PROGRAM})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND DLS_USE_PCH)
      add_compile_options(-fpch-preprocess)
    endif()
    message(STATUS "dls: compiling through ${DLS_CCACHE_PROGRAM}")
  else()
    message(STATUS "dls: ccache not found; clean builds compile everything")
  endif()
endif()
