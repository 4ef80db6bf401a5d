# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
)
