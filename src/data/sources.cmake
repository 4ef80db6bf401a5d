# Sources of src/data, relative to src/.
list(APPEND DLS_SOURCES
)
