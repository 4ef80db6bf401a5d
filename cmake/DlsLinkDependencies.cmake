# utf8proc, cairo and libjpeg, found through pkg-config as the imported targets dls_utf8proc,
# dls_cairo and dls_jpeg. The dls library links them privately; because it is a static library, a program
# that links it needs them too, so this file is installed with the CMake package and
# dlstudio_cppConfig.cmake includes it as well. Sets DLS_LINK_DEPENDENCIES_MISSING to the
# pkg-config modules not found (the caller decides whether that is fatal).
find_package(PkgConfig QUIET)
set(DLS_LINK_DEPENDENCIES_MISSING)
if(NOT PKG_CONFIG_FOUND)
  set(DLS_LINK_DEPENDENCIES_MISSING pkg-config)
  return()
endif()

# Unicode (NFC, lowercasing, categories, column widths) for the corpus normalisation and
# the text tables: utf8proc, which ships only a pkg-config file (Debian: libutf8proc-dev).
# Its include folder and library only: its pkg-config flags also define UTF8PROC_EXPORTS
# (for Windows DLLs), which would differ from the programs' and tests' flags and keep
# them from reusing the library's precompiled header.
pkg_check_modules(UTF8PROC QUIET libutf8proc)
if(NOT UTF8PROC_FOUND)
  list(APPEND DLS_LINK_DEPENDENCIES_MISSING "libutf8proc (Debian: libutf8proc-dev)")
elseif(NOT TARGET dls_utf8proc)
  add_library(dls_utf8proc INTERFACE IMPORTED)
  set_target_properties(dls_utf8proc PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${UTF8PROC_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${UTF8PROC_LINK_LIBRARIES}")
endif()

# Pictures (loss curves, heat maps, attention overlays): cairo draws the lines and the text
# (DejaVu Sans through fontconfig) and writes the PNG (Debian: libcairo2-dev; the font:
# fonts-dejavu-core). Used inside src/util/canvas.cpp only.
pkg_check_modules(CAIRO QUIET cairo)
if(NOT CAIRO_FOUND)
  list(APPEND DLS_LINK_DEPENDENCIES_MISSING "cairo (Debian: libcairo2-dev)")
elseif(NOT TARGET dls_cairo)
  add_library(dls_cairo INTERFACE IMPORTED)
  set_target_properties(dls_cairo PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CAIRO_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${CAIRO_LINK_LIBRARIES}")
endif()

# JPEG images (vit_train --image-folder, checkpoint_eval --classify): libjpeg-turbo's
# decoder (Debian: libjpeg-dev). Used inside src/util/image_file.cpp only.
pkg_check_modules(JPEG QUIET libjpeg)
if(NOT JPEG_FOUND)
  list(APPEND DLS_LINK_DEPENDENCIES_MISSING "libjpeg (Debian: libjpeg-dev)")
elseif(NOT TARGET dls_jpeg)
  add_library(dls_jpeg INTERFACE IMPORTED)
  set_target_properties(dls_jpeg PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${JPEG_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${JPEG_LINK_LIBRARIES}")
endif()
