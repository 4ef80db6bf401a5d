# Sources of src/models, relative to src/.
list(APPEND DLS_SOURCES
)
