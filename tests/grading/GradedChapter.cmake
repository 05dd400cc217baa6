# kindling_add_graded_chapter(): one graded test program per (chapter, tree).
#
#   kindling_add_graded_chapter(CHAPTER ch02 TREE exercises TREE_DIR <dir holding ch02/>
#                               TESTS <test .cpp files> [LIBS <targets>] [EXCLUDE_FROM_ALL])
#
# builds `grade_ch02_exercises` from the chapter's graded tests + every .cpp of <dir>/ch02/, with
# the grading listener and Catch2's main (kindling_grading_listener: the per-test result records
# scripts/grade.py requires, Catch's signal handlers off). Tests include the tree's headers as
# "ch02/foo.hpp" or "foo.hpp". Used by tests/grading/ (real chapters) and tests/tools/grader_fixtures/.
set(KINDLING_GRADING_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(kindling_grading_support)
  if(TARGET kindling_grading_listener)
    return()
  endif()
  find_package(nlohmann_json REQUIRED)
  add_library(kindling_grading_listener OBJECT "${KINDLING_GRADING_DIR}/grading_listener.cpp"
                                               "${KINDLING_GRADING_DIR}/grading_main.cpp")
  target_link_libraries(kindling_grading_listener PRIVATE nlohmann_json::nlohmann_json)
  # kindling/tensor/error.hpp (NotImplemented) is header-only: the include path is all it needs.
  target_include_directories(kindling_grading_listener PRIVATE "${KINDLING_GRADING_DIR}/../../lib/include")
endfunction()

function(kindling_add_graded_chapter)
  cmake_parse_arguments(G "EXCLUDE_FROM_ALL" "CHAPTER;TREE;TREE_DIR" "TESTS;LIBS" ${ARGN})
  kindling_grading_support()
  set(target grade_${G_CHAPTER}_${G_TREE})
  file(GLOB_RECURSE tree_srcs CONFIGURE_DEPENDS "${G_TREE_DIR}/${G_CHAPTER}/*.cpp")
  set(exclude "")
  if(G_EXCLUDE_FROM_ALL)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  add_executable(${target} ${exclude} ${G_TESTS} ${tree_srcs} $<TARGET_OBJECTS:kindling_grading_listener>)
  # The tests' own folders come first (a hidden test may include its chapter's helper header).
  set(test_dirs "")
  foreach(t IN LISTS G_TESTS)
    get_filename_component(d "${t}" DIRECTORY)
    get_filename_component(name "${d}" NAME)
    get_filename_component(parent "${d}" DIRECTORY)
    get_filename_component(parent_name "${parent}" NAME)
    if(parent_name STREQUAL "hidden")  # tests/grading/hidden/chNN -> also tests/grading/chNN
      get_filename_component(grading "${parent}" DIRECTORY)
      list(APPEND test_dirs "${grading}/${name}")
    endif()
    list(APPEND test_dirs "${d}")
  endforeach()
  list(REMOVE_DUPLICATES test_dirs)
  target_include_directories(${target} PRIVATE ${test_dirs} "${G_TREE_DIR}" "${G_TREE_DIR}/${G_CHAPTER}"
                             "${KINDLING_GRADING_DIR}" "${KINDLING_GRADING_DIR}/../../lib/include")
  target_link_libraries(${target} PRIVATE ${G_LIBS})
  target_compile_definitions(${target} PRIVATE KINDLING_GRADING_TREE="${G_TREE}")
  # scripts/grade.py looks for the programs here.
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/grading-bin")
  # Stubs leave their parameters unused; a wall of warnings is not what a learner should see first.
  target_compile_options(${target} PRIVATE -Wno-unused-parameter -Wno-unused-variable
                         -Wno-unused-but-set-variable)
endfunction()
