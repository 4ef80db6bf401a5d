# The programs' shared command line (include/dls/cli/), relative to tests/.
list(APPEND DLS_TEST_SOURCES
  cli/config_toml_test.cpp
  cli/declared_flags_test.cpp
  cli/number_options_test.cpp
)
