# Tests of src/eval, relative to tests/.
list(APPEND DLS_TEST_SOURCES
)
