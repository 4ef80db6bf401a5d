# Tests of src/layers, relative to tests/.
list(APPEND DLS_TEST_SOURCES
)
