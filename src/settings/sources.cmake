# Sources of src/settings, relative to src/.
list(APPEND DLS_SOURCES
  settings/builtin_presets.cpp
  settings/common_settings.cpp
  settings/lm_settings.cpp
  settings/lr_schedule.cpp
  settings/run_settings.cpp
  settings/seq2seq_settings.cpp
  settings/vit_settings.cpp
)
