// The page's files: only plain names directly in the page folder, with their Content-Type;
// where the page is found (--page-dir, the installed copy beside the program, the source tree).
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <utility>

#include "dls/serve/page_files.h"
#include "util/temp_files.h"

namespace dls::serve {
namespace {

namespace fs = std::filesystem;

TEST(PageFiles, OnlyPlainFilesOfThePageFolder) {
  const auto root = test::fresh_temp_dir("page_files");
  const auto page = root / "page";
  fs::create_directories(page / "sub");
  test::write_bytes(page / "index.html", "<html></html>");
  test::write_bytes(page / "app.js", "1");
  test::write_bytes(page / ".hidden", "x");
  test::write_bytes(page / "sub" / "x.css", "x");
  test::write_bytes(root / "secret.txt", "x");
  EXPECT_EQ(page_file(page.string(), "/"), (page / "index.html").string());
  EXPECT_EQ(page_file(page.string(), "/app.js"), (page / "app.js").string());
  for (const char* refused : {"/../secret.txt", "/..", "/sub/x.css", "/sub", "/.hidden", "/missing.js", "//etc/passwd",
                              "/%2e%2e/secret.txt", "app.js", ""})
    EXPECT_EQ(page_file(page.string(), refused), "") << refused;
  EXPECT_EQ(page_file("", "/"), "");
  // A link to a file outside the folder is not the page's; one to a file inside it is.
  fs::create_symlink(root / "secret.txt", page / "leak.txt");
  fs::create_symlink(page / "app.js", page / "alias.js");
  EXPECT_EQ(page_file(page.string(), "/leak.txt"), "");
  EXPECT_EQ(page_file(page.string(), "/alias.js"), (page / "alias.js").string());
}

TEST(PageFiles, ContentTypes) {
  const std::pair<const char*, const char*> files_and_types[] = {{"a/index.html", "text/html; charset=utf-8"},
                                                                 {"app.js", "text/javascript; charset=utf-8"},
                                                                 {"style.CSS", "text/css; charset=utf-8"},
                                                                 {"logo.png", "image/png"},
                                                                 {"icon.svg", "image/svg+xml"},
                                                                 {"blob.bin", "application/octet-stream"}};
  for (const auto& [file, type] : files_and_types) EXPECT_EQ(content_type(file), type) << file;
}

TEST(PageFiles, FoundGivenInstalledOrInTheSourceTree) {
  const auto root = test::fresh_temp_dir("page_dirs");
  fs::create_directories(root / "prefix" / "bin");
  fs::create_directories(root / "source_page");
  test::write_bytes(root / "prefix" / "bin" / "translate_server", "");
  const auto program = (root / "prefix" / "bin" / "translate_server").string();
  const auto source = (root / "source_page").string();
  EXPECT_EQ(find_page_dir(source, program, ""), source);
  EXPECT_THROW(find_page_dir("/nonexistent/page", program, source), std::runtime_error) << "a --page-dir that is none";
  EXPECT_EQ(find_page_dir("", program, source), source);  // nothing installed: the source tree's
  fs::create_directories(root / "prefix" / "share" / "dlstudio-cpp" / "page");
  EXPECT_EQ(find_page_dir("", program, source),
            fs::canonical(root / "prefix" / "share" / "dlstudio-cpp" / "page").string());
  EXPECT_EQ(find_page_dir("", "", (root / "none").string()), "");
}

}  // namespace
}  // namespace dls::serve
