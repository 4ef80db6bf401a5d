# Warnings for the project's own code (dependency headers are SYSTEM includes).
function(dls_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()

# Every target that includes LibTorch reuses the library's precompiled header: parsing
# <torch/torch.h> costs ~17 s per file on a 2-core machine, reading the PCH well under 1 s.
function(dls_reuse_pch target)
  if(DLS_USE_PCH)
    target_precompile_headers(${target} REUSE_FROM dls)
  endif()
endfunction()
