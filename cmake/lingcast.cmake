# Helpers shared by every module: one library per folder, one test binary per library.

set(LINGCAST_WARNINGS -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(LINGCAST_WERROR)
  list(APPEND LINGCAST_WARNINGS -Werror)
endif()

set(LINGCAST_SANITIZE_FLAGS "")
if(LINGCAST_ASAN)
  set(LINGCAST_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
elseif(LINGCAST_TSAN)
  set(LINGCAST_SANITIZE_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
elseif(LINGCAST_FUZZ)
  # Coverage for libFuzzer in every library; the targets link the fuzzer's main.
  set(LINGCAST_SANITIZE_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer -g)
endif()
if(LINGCAST_SANITIZE_FLAGS)
  # Sanitizer instrumentation changes inlining enough that GCC 12 reports
  # std::variant/std::string members as "maybe uninitialized" where they are not
  # (a known false positive); the sanitizers themselves catch real ones.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND LINGCAST_WARNINGS -Wno-maybe-uninitialized)
  endif()
  add_compile_options(${LINGCAST_SANITIZE_FLAGS})
  add_link_options(${LINGCAST_SANITIZE_FLAGS})
endif()

# lingcast_library(NAME SOURCES a.cc b.cc DEPS lingcast_core absl::status ...)
# Creates target lingcast_<NAME>; include paths are rooted at src/ ("core/clock.h").
function(lingcast_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target lingcast_${name})
  if(ARG_SOURCES)
    add_library(${target} STATIC ${ARG_SOURCES})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
    target_compile_options(${target} PRIVATE ${LINGCAST_WARNINGS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  endif()
endfunction()

# lingcast_test(NAME SOURCES a_test.cc DEPS lingcast_core ...)
# One GoogleTest binary per library, registered with ctest.
function(lingcast_test name)
  if(LINGCAST_FUZZ)
    return()  # a fuzz build makes the fuzz targets only
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS" ${ARGN})
  set(target ${name}_test)
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_options(${target} PRIVATE ${LINGCAST_WARNINGS})
  target_compile_definitions(${target} PRIVATE
    LINGCAST_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LINGCAST_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if(LINGCAST_TSAN)
    # ThreadSanitizer runs single-threaded work 5-40 times slower (the translation
    # memory's index against a linear scan: 10 s, over 300 s under TSan).
    math(EXPR ARG_TIMEOUT "${ARG_TIMEOUT} * 4")
  endif()
  include(GoogleTest)
  # LABELS: the library's name, so one library's tests run alone (ctest -L core).
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS ${name})
endfunction()

# Looks for nvcc (CUDACXX, else /usr/local/cuda/bin/nvcc) and, when found,
# enables CUDA for Hopper unless CMAKE_CUDA_ARCHITECTURES says otherwise.
# CMAKE_CUDA_COMPILER is empty afterwards when there is none. A macro: the
# compiler and architectures must be set in the caller's scope.
macro(lingcast_enable_cuda)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # Hopper (H100/H200); -DCMAKE_CUDA_ARCHITECTURES=... for others
    endif()
    enable_language(CUDA)
  endif()
endmacro()
