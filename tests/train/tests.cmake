# Tests of src/train, relative to tests/.
list(APPEND DLS_TEST_SOURCES
)
