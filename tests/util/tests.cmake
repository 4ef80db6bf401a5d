# Tests of src/util, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  util/blas_kernels_test.cpp
  util/canvas_test.cpp
  util/colormap_test.cpp
  util/csv_test.cpp
  util/tensorboard_events_test.cpp
  util/device_test.cpp
  util/file_io_test.cpp
  util/output_file_test.cpp
  util/remove_on_signal_test.cpp
  util/heat_map_test.cpp
  util/image_panel_test.cpp
  util/json_test.cpp
  util/line_plot_test.cpp
  util/plot_test.cpp
  util/precision_test.cpp
  util/progress_test.cpp
  util/random_test.cpp
  util/runtime_test.cpp
  util/table_test.cpp
  util/ticks_test.cpp
  util/utf8_test.cpp
  util/available_memory_test.cpp
  util/memory_check_test.cpp
  util/png_image_test.cpp
  util/thread_policy_test.cpp
)
