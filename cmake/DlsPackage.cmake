# `cmake --install build --prefix P` installs, beside the programs (P/bin) and SentencePiece's
# module (P/lib): the headers (P/include/dls), the static library (P/lib/libdls.a) and the
# CMake package dlstudio_cpp (P/lib/cmake/dlstudio_cpp), whose target is dlstudio_cpp::dls.
#
# Static, as the programs link it: its objects are built once for both, without -fPIC; the
# headers declare no export macros, so a shared library would export every symbol, template
# instantiations of LibTorch included; and a program linking it runs without a libdls.so to
# find. The price: its private link dependencies are found again by the package's config.
include(CMakePackageConfigHelpers)

# dls/cli/ is the programs' own command line (dls_cli, src/CMakeLists.txt) and dls/serve/
# translate_server's library (dls_serve, which is not installed; its api_json.h would need
# nlohmann_json): neither is installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/dls DESTINATION include PATTERN cli EXCLUDE PATTERN serve EXCLUDE)
install(TARGETS dls EXPORT dlstudio_cppTargets ARCHIVE DESTINATION lib)
set(dls_package_dir lib/cmake/dlstudio_cpp)
install(EXPORT dlstudio_cppTargets NAMESPACE dlstudio_cpp:: DESTINATION ${dls_package_dir})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dlstudio_cppConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dlstudio_cppConfig.cmake INSTALL_DESTINATION ${dls_package_dir})
# 0.x: a program built against 0.1 needs 0.1.y.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dlstudio_cppConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dlstudio_cppConfig.cmake ${PROJECT_BINARY_DIR}/dlstudio_cppConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/DlsLinkDependencies.cmake
        DESTINATION ${dls_package_dir})
