# Tests of src/serve (translate_server's library), relative to tests/.
list(APPEND DLS_TEST_SOURCES
  serve/api_json_test.cpp
  serve/batcher_test.cpp
  serve/host_check_test.cpp
  serve/http_server_test.cpp
  serve/page_files_test.cpp
  serve/translate_server_test.cpp
  serve/vit_server_test.cpp
)
