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
function(dls_unity_build target)
  if(DLS_UNITY_BATCH GREATER 1)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${DLS_UNITY_BATCH})
  endif()
endfunction()
