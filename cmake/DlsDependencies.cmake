# Finds every dependency of the project. All come from Debian's packages
# (see cmake/install_debian_deps.sh); LibTorch can also be another build, e.g. a CUDA one
# from a PyTorch installation, through CMAKE_PREFIX_PATH or Torch_DIR.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)        # gzip'd Fashion-MNIST / DLStudio archives, PNG output

find_package(Torch REQUIRED)
message(STATUS "dls: LibTorch ${Torch_VERSION} from ${Torch_DIR}")

# Data-parallel training across processes (src/train/distributed.cpp) uses c10d's
# ProcessGroupGloo. It is there when LibTorch was built with Gloo (its torch_cpu target
# then exports USE_C10D_GLOO, which ProcessGroupGloo.hpp is guarded by) and Gloo's own
# headers are installed (Debian: libgloo-dev; PyTorch's wheels do not ship them -- 2.11 has
# no torch/include/gloo -- so a build on one has NCCL alone). Without either the library
# still builds, and a launch with RANK and WORLD_SIZE set fails with a one-line error.
function(dls_torch_target_defines target definition result)
  set(found OFF)
  if(TARGET ${target})
    get_target_property(definitions ${target} INTERFACE_COMPILE_DEFINITIONS)
    if(definitions AND "${definitions}" MATCHES "(^|;)${definition}(;|$)")
      set(found ON)
    endif()
  endif()
  set(${result} ${found} PARENT_SCOPE)
endfunction()

dls_torch_target_defines(torch_cpu USE_C10D_GLOO DLS_TORCH_HAS_GLOO)
find_path(DLS_GLOO_INCLUDE_DIR gloo/context.h HINTS ${TORCH_INCLUDE_DIRS})
if(DLS_TORCH_HAS_GLOO AND DLS_GLOO_INCLUDE_DIR)
  set(DLS_HAVE_GLOO ON)
else()
  set(DLS_HAVE_GLOO OFF)
  message(STATUS "dls: multi-process training disabled: LibTorch without c10d Gloo, or no Gloo headers "
                 "(gloo/context.h; Debian: libgloo-dev)")
endif()
# NCCL through c10d only with a CUDA LibTorch that exports USE_C10D_NCCL, and NCCL's header
# (Debian's LibTorch is CPU-only: the "nccl" backend then fails with a one-line error).
dls_torch_target_defines(torch_cuda USE_C10D_NCCL DLS_TORCH_HAS_NCCL)
set(DLS_HAVE_NCCL OFF)
if(DLS_TORCH_HAS_NCCL)
  # NCCL comes with the CUDA toolkit, or as PyTorch's wheel nvidia-nccl beside torch/.
  find_path(DLS_NCCL_INCLUDE_DIR nccl.h
            HINTS ${TORCH_INCLUDE_DIRS} ${CUDAToolkit_INCLUDE_DIRS} ${TORCH_INSTALL_PREFIX}/../nvidia/nccl/include)
  find_library(DLS_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${DLS_NCCL_INCLUDE_DIR}/../lib)
  if(DLS_NCCL_INCLUDE_DIR)
    set(DLS_HAVE_NCCL ON)
  endif()
endif()
message(STATUS "dls: Gloo ${DLS_HAVE_GLOO}, NCCL ${DLS_HAVE_NCCL} (LibTorch built with NCCL: ${DLS_TORCH_HAS_NCCL})")

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CLI11_INCLUDE_DIR})
endif()

find_package(spdlog CONFIG REQUIRED)

# utf8proc and cairo, which the static library links privately: in their own file, which
# the installed CMake package includes too (a program linking libdls.a needs them).
include(DlsLinkDependencies)
if(DLS_LINK_DEPENDENCIES_MISSING)
  message(FATAL_ERROR "dls: not found through pkg-config: ${DLS_LINK_DEPENDENCIES_MISSING}")
endif()

# Subword units: SentencePiece's processor and trainer, which ship a pkg-config file
# (Debian: libsentencepiece-dev); used by one module only (src/CMakeLists.txt says why).
pkg_check_modules(SENTENCEPIECE REQUIRED sentencepiece)
add_library(dls_sentencepiece INTERFACE IMPORTED)
set_target_properties(dls_sentencepiece PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${SENTENCEPIECE_INCLUDE_DIRS}"
  INTERFACE_LINK_LIBRARIES "${SENTENCEPIECE_LINK_LIBRARIES}")

# JSON output (--json summaries, evaluation reports): nlohmann's header-only library
# (Debian: nlohmann-json3-dev), used inside src/util/json.cpp only.
find_package(nlohmann_json 3 CONFIG REQUIRED)

if(DLS_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# translate_server's HTTP server (src/serve/http_server.cpp): Boost.Beast over Boost.Asio,
# header-only (Debian: libboost-dev). It gives the control over every connection that a
# server facing hostile input needs: deadlines, head and body limits while reading,
# pipelining, many slow connections on one thread.
find_path(DLS_BOOST_INCLUDE_DIR boost/beast/http.hpp REQUIRED)
add_library(dls_beast INTERFACE IMPORTED)
set_target_properties(dls_beast PROPERTIES
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${DLS_BOOST_INCLUDE_DIR}"
  INTERFACE_INCLUDE_DIRECTORIES "${DLS_BOOST_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES Threads::Threads)

# The HTTP client of translate_server's tests and benchmark: cpp-httplib
# (Debian: libcpp-httplib-dev, a compiled library with a pkg-config file). The class layouts
# depend on the macros it was built with (its Cflags: OpenSSL, zlib, Brotli support), so
# dls_httplib.h (generated into the build folder) defines them before <httplib.h>: the
# flags of the targets stay the same and they reuse the library's precompiled header.
pkg_check_modules(HTTPLIB REQUIRED cpp-httplib)
set(dls_httplib_defines "")
foreach(flag IN LISTS HTTPLIB_CFLAGS_OTHER)
  if(flag MATCHES "^-D([A-Za-z0-9_]+)=?(.*)$")
    string(APPEND dls_httplib_defines "#ifndef ${CMAKE_MATCH_1}\n#define ${CMAKE_MATCH_1} ${CMAKE_MATCH_2}\n#endif\n")
  endif()
endforeach()
file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/generated/httplib/dls_httplib.h" CONTENT
  "// cpp-httplib as Debian's libcpp-httplib was built (cmake/DlsDependencies.cmake).\n#pragma once\n${dls_httplib_defines}#include <httplib.h>\n")
add_library(dls_httplib INTERFACE IMPORTED)
set_target_properties(dls_httplib PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_BINARY_DIR}/generated/httplib;${HTTPLIB_INCLUDE_DIRS}"
  INTERFACE_LINK_LIBRARIES "${HTTPLIB_LINK_LIBRARIES}")
