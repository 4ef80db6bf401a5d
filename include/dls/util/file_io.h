// Whole-file reading, gzip decompression (zlib) and crash-safe writing.
#pragma once

#include <functional>
#include <string>

namespace dls::util {

// Reads a whole file; throws std::runtime_error naming the file when it cannot be read.
std::string read_file(const std::string& path);

// True when the bytes start with gzip's magic number 1f 8b.
bool is_gzip(const std::string& bytes);

// Decompresses a gzip stream (several members allowed). `name` appears in error messages.
// Throws std::runtime_error on a corrupt or truncated stream.
std::string gunzip(const std::string& bytes, const std::string& name);

// read_file, then gunzip when the content is gzip-compressed.
std::string read_maybe_gzip_file(const std::string& path);

// Writes `path` so that it is either absent/old or complete, never half-written:
// `write` fills a temporary file in the same directory, which is flushed to disk
// (fsync) and then renamed over `path`. On any exception the temporary file is removed
// and the exception propagates; an existing `path` is left untouched.
void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& tmp_path)>& write);

// Atomically writes a string as the whole content of `path`.
void write_text_atomically(const std::string& path, const std::string& content);

}  // namespace dls::util
