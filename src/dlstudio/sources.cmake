# Sources of src/dlstudio, relative to src/.
list(APPEND DLS_SOURCES
  dlstudio/export.cpp
  dlstudio/import.cpp
  dlstudio/names.cpp
  dlstudio/state_dict_file.cpp
  dlstudio/state_dict_pickle.cpp
  dlstudio/vocabularies.cpp
)
