# Tests of src/settings, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  settings/builtin_presets_test.cpp
  settings/lm_settings_test.cpp
  settings/lr_schedule_test.cpp
  settings/run_settings_test.cpp
  settings/seq2seq_settings_test.cpp
  settings/settings_file_test.cpp
  settings/vit_settings_test.cpp
)
