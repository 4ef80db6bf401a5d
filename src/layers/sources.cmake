# Sources of src/layers, relative to src/.
list(APPEND DLS_SOURCES
)
