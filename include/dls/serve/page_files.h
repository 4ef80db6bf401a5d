// The web page's files, served by GET / and GET /<file>: only files directly in the page
// folder, never a path that climbs out of it, each with its Content-Type.
#pragma once

#include <string>

namespace dls::serve {

// The file `request_path` names in `page_dir` ("/" is index.html); "" when it names nothing
// that may be served (a subfolder, "..", a hidden file, a file that is not there, a link to
// a file outside the folder).
std::string page_file(const std::string& page_dir, const std::string& request_path);

// "text/html; charset=utf-8" for .html, and likewise .js, .css, .json, .png, .svg, .ico,
// .txt; "application/octet-stream" otherwise.
std::string content_type(const std::string& file);

// Where the page is: `page_dir` when given; else the installed copy beside the program
// (<program's folder>/../share/dlstudio-cpp/page); else `source_page_dir` (the source
// tree's apps/server_page, for a program run from the build folder); "" when none exists.
// Throws std::runtime_error (one line) when `page_dir` is given but is not a folder.
std::string find_page_dir(const std::string& page_dir, const std::string& program_path,
                          const std::string& source_page_dir);

}  // namespace dls::serve
