# Finds every dependency of the project. All come from Debian's packages
# (see cmake/install_debian_deps.sh); LibTorch can also be another build, e.g. a CUDA one
# from a PyTorch installation, through CMAKE_PREFIX_PATH or Torch_DIR.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)        # gzip'd Fashion-MNIST / DLStudio archives, PNG output

find_package(Torch REQUIRED)
message(STATUS "dls: LibTorch ${Torch_VERSION} from ${Torch_DIR}")

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CLI11_INCLUDE_DIR})
endif()

find_package(spdlog CONFIG REQUIRED)

if(DLS_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
