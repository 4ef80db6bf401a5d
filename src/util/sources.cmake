# Sources of src/util, relative to src/.
list(APPEND DLS_SOURCES
  util/blas_kernels.cpp
  util/canvas.cpp
  util/colormap.cpp
  util/parallel_chunks.cpp
  util/csv.cpp
  util/device.cpp
  util/file_io.cpp
  util/heat_map.cpp
  util/image_panel.cpp
  util/json.cpp
  util/key_values.cpp
  util/line_plot.cpp
  util/precision.cpp
  util/progress.cpp
  util/random.cpp
  util/runtime.cpp
  util/table.cpp
  util/ticks.cpp
  util/utf8.cpp
  util/available_memory.cpp
  util/memory_check.cpp
  util/png_image.cpp
  util/thread_policy.cpp
  util/output_file.cpp
  util/remove_on_signal.cpp
)
