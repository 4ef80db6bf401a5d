# Tests of src/dlstudio, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  dlstudio/interop_test.cpp
  dlstudio/state_dict_file_test.cpp
  dlstudio/state_dict_pickle_test.cpp
)
