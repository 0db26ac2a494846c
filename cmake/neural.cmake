# src/neural's build settings, shared by the full build and LINGCAST_NEURAL_ONLY.
#
# LINGCAST_NEURAL_ONLY builds src/neural, its tests and bench/neural_bench alone,
# for a machine that has PyTorch (its libtorch headers and CMake config) but none
# of lingcast's Debian packages: no absl, so the engine adapters (which speak
# absl::Status) are left out; GoogleTest and nlohmann/json are taken from the
# system when present (GoogleTest also from its sources in /usr/src/googletest).
#
#   cmake -S . -B build-neural -G Ninja -DLINGCAST_NEURAL_ONLY=ON \
#     -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"

# Finds libtorch; sets LINGCAST_HAVE_TORCH. With LINGCAST_NEURAL=ON a missing
# libtorch is an error; with AUTO the module is skipped with a message.
macro(lingcast_find_torch)
  set(LINGCAST_HAVE_TORCH OFF)
  if(NOT LINGCAST_NEURAL STREQUAL "OFF")
    # GLOBAL: bench/ links the targets too.
    find_package(Torch QUIET GLOBAL)
    if(Torch_FOUND)
      set(LINGCAST_HAVE_TORCH ON)
    elseif(LINGCAST_NEURAL STREQUAL "ON")
      message(FATAL_ERROR "LINGCAST_NEURAL=ON but libtorch was not found: install libtorch-dev "
                          "(scripts/install-deps.sh) or pass -DCMAKE_PREFIX_PATH=<torch.utils.cmake_prefix_path>")
    else()
      message(STATUS "lingcast: src/neural (Marian, Whisper, VITS on libtorch) skipped: libtorch not found. "
                     "Install libtorch-dev (scripts/install-deps.sh) to build it; -DLINGCAST_NEURAL=OFF skips it quietly.")
    endif()
  endif()
endmacro()

# nlohmann/json is header-only: its CMake package, else its header on the include path.
macro(lingcast_find_json_for_neural)
  find_package(nlohmann_json 3 QUIET GLOBAL)
  if(NOT TARGET nlohmann_json::nlohmann_json)
    find_path(LINGCAST_NLOHMANN_INCLUDE nlohmann/json.hpp REQUIRED)
    add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
    target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${LINGCAST_NLOHMANN_INCLUDE})
  endif()
endmacro()

if(LINGCAST_NEURAL_ONLY)
  set(LINGCAST_NEURAL ON)
  lingcast_find_torch()
  lingcast_find_json_for_neural()
  find_package(Threads REQUIRED)
  find_package(GTest QUIET)
  if(NOT TARGET GTest::gtest_main AND EXISTS /usr/src/googletest/CMakeLists.txt)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
    add_library(GTest::gmock ALIAS gmock)
  endif()
  if(NOT TARGET GTest::gmock AND TARGET GTest::gtest)
    # lingcast_test links gmock; src/neural's tests use only gtest.
    add_library(GTest::gmock INTERFACE IMPORTED)
  endif()
  # PyTorch's pip libtorch.so exports its own copies of some libstdc++ symbols
  # (std::filesystem::remove_all among them) that crash when a program binds to
  # them; naming libstdc++ first makes the program bind to the real ones.
  add_link_options(LINKER:--push-state,--no-as-needed -lstdc++ LINKER:--pop-state)
  enable_testing()
  add_subdirectory(src/neural)
  add_subdirectory(bench)
endif()
