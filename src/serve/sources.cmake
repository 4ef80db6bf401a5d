# Sources of src/serve (translate_server's library, dls_serve), relative to src/.
list(APPEND DLS_SERVE_SOURCES
  serve/api_json.cpp
  serve/batcher.cpp
  serve/host_check.cpp
  serve/http_server.cpp
  serve/page_files.cpp
  serve/serve_checkpoint.cpp
  serve/server_command.cpp
  serve/stop_signals.cpp
  serve/translate_server.cpp
  serve/vit_api_json.cpp
)
