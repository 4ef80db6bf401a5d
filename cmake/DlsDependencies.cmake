# Finds every dependency of the project. All come from Debian's packages
# (see cmake/install_debian_deps.sh); LibTorch can also be another build, e.g. a CUDA one
# from a PyTorch installation, through CMAKE_PREFIX_PATH or Torch_DIR.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)        # gzip'd Fashion-MNIST / DLStudio archives, PNG output

find_package(Torch REQUIRED)
message(STATUS "dls: LibTorch ${Torch_VERSION} from ${Torch_DIR}")

# Data-parallel training across processes (src/train/distributed.cpp) uses c10d's
# ProcessGroupGloo, whose header needs Gloo's own headers (Debian: libgloo-dev; PyTorch's
# wheels ship them below torch/include). Without them the library still builds, and a
# launch with RANK/WORLD_SIZE set fails with a one-line error naming the missing package.
find_path(DLS_GLOO_INCLUDE_DIR gloo/context.h HINTS ${TORCH_INCLUDE_DIRS})
if(DLS_GLOO_INCLUDE_DIR)
  set(DLS_HAVE_GLOO ON)
else()
  set(DLS_HAVE_GLOO OFF)
  message(STATUS "dls: no Gloo headers (gloo/context.h): multi-process training disabled; install libgloo-dev")
endif()
# NCCL through c10d only with a CUDA build of LibTorch and NCCL's header (Debian's LibTorch
# is CPU-only: the "nccl" backend then fails with a one-line error).
set(DLS_HAVE_NCCL OFF)
if(TARGET torch_cuda)
  find_path(DLS_NCCL_INCLUDE_DIR nccl.h HINTS ${TORCH_INCLUDE_DIRS} ${CUDAToolkit_INCLUDE_DIRS})
  if(DLS_NCCL_INCLUDE_DIR)
    set(DLS_HAVE_NCCL ON)
  endif()
endif()

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
