# Tests of src/models, relative to tests/.
list(APPEND DLS_TEST_SOURCES
)
