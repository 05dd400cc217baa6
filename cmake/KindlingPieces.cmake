# The exercise model: every graded exercise of a chapter is a *piece* of the library — a function the
# library itself calls (the strides of a new tensor, the copy behind contiguous(), softmax, ...). Its
# declaration lives in a library header; its definition lives in an answer file, and the build compiles
# one of two into the chapter's layer:
#   solutions/chNN/<file>   the reference (with BEGIN/END SOLUTION markers; on hot paths the fast code)
#   exercises/chNN/<file>   the learner's (generated stubs that throw kindling::NotImplemented)
# A chapter is in this model when tests/grading/chNN/exercises.json says "model": "library"; it names
# each exercise's answer file ("file") and the chapter's layer ("layer"). Other chapters keep the older
# side-namespace model (tests/grading/GradedChapter.cmake).
#
# Which answer files the layers take (the library `make run`, the book, the benchmarks use):
#   KINDLING_REFERENCE=all       every chapter from solutions/ (default where solutions/ has them all)
#   KINDLING_REFERENCE=none      every chapter from exercises/ (your own library)
#   KINDLING_REFERENCE=01,02     chapters 1 and 2 from solutions/, the rest from exercises/
# Trees by name: solutions, exercises (KINDLING_EXERCISES_DIR), stubs (pristine generated stubs: built
# from solutions/ into <build>/stubs, or shipped in a handout under tests/grading/stubs), and any
# KINDLING_EXTRA_TREES "name=dir" (the grader's own tests grade planted submissions that way).

set(KINDLING_SOLUTIONS_DIR "${PROJECT_SOURCE_DIR}/solutions")
set(KINDLING_EXTRA_TREES "" CACHE STRING "More exercise trees to grade, as name=dir;... (the grader's tests)")
option(KINDLING_LEARNER_BUILD "A learner's build: the library, chapter programs, graded tests and milestones only"
       OFF)

# ---- chapters in the library model (from their manifests) ------------------------------------------
set(KINDLING_PIECE_CHAPTERS "")
file(GLOB _kp_manifests "${PROJECT_SOURCE_DIR}/tests/grading/ch[0-9][0-9]/exercises.json")
list(SORT _kp_manifests)
foreach(_m IN LISTS _kp_manifests)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_m}")
  get_filename_component(_dir "${_m}" DIRECTORY)
  get_filename_component(_ch "${_dir}" NAME)
  file(READ "${_m}" _json)
  string(JSON _model ERROR_VARIABLE _err GET "${_json}" model)
  if(_err OR NOT _model STREQUAL "library")
    continue()
  endif()
  string(JSON _layer GET "${_json}" layer)
  string(JSON _n LENGTH "${_json}" exercises)
  set(_exs "")
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE ${_last})
    string(JSON _ex MEMBER "${_json}" exercises ${_i})
    string(JSON _file GET "${_json}" exercises ${_ex} file)
    list(APPEND _exs ${_ex})
    set(KP_${_ch}_${_ex}_FILE "${_file}")
  endforeach()
  set(KP_${_ch}_EXERCISES ${_exs})
  set(KP_${_ch}_LAYER ${_layer})
  string(JSON _ms ERROR_VARIABLE _err GET "${_json}" milestone)
  set(KP_${_ch}_MILESTONE OFF)
  if(NOT _err)
    set(KP_${_ch}_MILESTONE ON)
  endif()
  list(APPEND KINDLING_PIECE_CHAPTERS ${_ch})
endforeach()

# ---- which chapters take the reference -----------------------------------------------------------
set(_kp_available "")
foreach(_ch IN LISTS KINDLING_PIECE_CHAPTERS)
  if(IS_DIRECTORY "${KINDLING_SOLUTIONS_DIR}/${_ch}")
    list(APPEND _kp_available ${_ch})
  endif()
endforeach()
if(KINDLING_PIECE_CHAPTERS AND _kp_available STREQUAL KINDLING_PIECE_CHAPTERS AND NOT KINDLING_LEARNER_BUILD)
  set(_kp_default all)
elseif(_kp_available)
  string(REPLACE "ch" "" _kp_default "${_kp_available}")   # a handout: the chapters it was given
  string(REPLACE ";" "," _kp_default "${_kp_default}")
else()
  set(_kp_default none)
endif()
set(KINDLING_REFERENCE "${_kp_default}" CACHE STRING
    "Chapters whose exercise pieces come from solutions/: all, none, or a list such as 01,02")

# "01,2;ch03" -> ch01;ch02;ch03
function(kindling_parse_chapters out spec)
  string(STRIP "${spec}" spec)
  if(spec STREQUAL "all")
    set(${out} ${KINDLING_PIECE_CHAPTERS} PARENT_SCOPE)
    return()
  endif()
  set(result "")
  if(NOT spec STREQUAL "none" AND NOT spec STREQUAL "")
    string(REPLACE "," ";" items "${spec}")
    foreach(item IN LISTS items)
      string(STRIP "${item}" item)
      string(REGEX REPLACE "^ch" "" item "${item}")
      if(NOT item MATCHES "^[0-9]+$")
        message(FATAL_ERROR "KINDLING_REFERENCE / REFERENCE=${spec}: '${item}' is not a chapter number "
                            "(write e.g. REFERENCE=01,02, REFERENCE=all or REFERENCE=none)")
      endif()
      if(item LESS 10)
        math(EXPR item "${item} + 0")
        set(item "0${item}")
      endif()
      list(APPEND result ch${item})
    endforeach()
  endif()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

kindling_parse_chapters(KINDLING_REFERENCE_CHAPTERS "${KINDLING_REFERENCE}")
foreach(_ch IN LISTS KINDLING_REFERENCE_CHAPTERS)
  if(NOT _ch IN_LIST KINDLING_PIECE_CHAPTERS)
    continue()  # a chapter without pieces (yet): nothing to choose
  endif()
  if(NOT _ch IN_LIST _kp_available)
    string(SUBSTRING "${_ch}" 2 2 _num)
    message(FATAL_ERROR "REFERENCE (KINDLING_REFERENCE=${KINDLING_REFERENCE}) asks for chapter ${_num}'s reference "
                        "answers, but solutions/${_ch}/ is not in this tree. A handout holds only the chapters "
                        "its instructor shipped (make handout REFERENCE=...); write your own in exercises/${_ch}/ "
                        "(a value left from an earlier configure? pass REFERENCE=none).")
  endif()
endforeach()
message(STATUS "Exercise pieces: reference for [${KINDLING_REFERENCE_CHAPTERS}] of [${KINDLING_PIECE_CHAPTERS}]")

# ---- trees ------------------------------------------------------------------------------------------
set(KINDLING_TREES solutions exercises stubs)
set(KP_TREE_DIR_solutions "${KINDLING_SOLUTIONS_DIR}")
set(KP_TREE_DIR_exercises "${KINDLING_EXERCISES_DIR}")
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/tests/grading/stubs")
  set(KP_TREE_DIR_stubs "${PROJECT_SOURCE_DIR}/tests/grading/stubs")   # shipped with a handout
else()
  set(KP_TREE_DIR_stubs "${PROJECT_BINARY_DIR}/stubs")   # generated below from solutions/
endif()
foreach(_spec IN LISTS KINDLING_EXTRA_TREES)
  string(FIND "${_spec}" "=" _eq)
  string(SUBSTRING "${_spec}" 0 ${_eq} _name)
  math(EXPR _eq "${_eq} + 1")
  string(SUBSTRING "${_spec}" ${_eq} -1 _tdir)
  list(APPEND KINDLING_TREES ${_name})
  set(KP_TREE_DIR_${_name} "${_tdir}")
endforeach()
# Trees whose files a learner (or a planted submission) wrote: compiled through scripts/compile_piece.py,
# which keeps each file's compiler output for the grader.
set(KP_UNTRUSTED_TREES exercises)
set(KINDLING_GRADER_TREES "")   # graded besides solutions/exercises (tests/grading/CMakeLists.txt)
foreach(_spec IN LISTS KINDLING_EXTRA_TREES)
  string(REGEX REPLACE "=.*" "" _name "${_spec}")
  list(APPEND KP_UNTRUSTED_TREES ${_name})
  list(APPEND KINDLING_GRADER_TREES ${_name})
endforeach()
# The instructor's build also grades the grader's own test trees (tests/tools/test_chapters.py): the
# pristine stubs, the reference as if a learner wrote it, planted bugs and library calls — each piece
# in isolation, on this build's own library objects (no second build of the library).
if(NOT KINDLING_LEARNER_BUILD AND IS_DIRECTORY "${KINDLING_SOLUTIONS_DIR}"
   AND IS_DIRECTORY "${PROJECT_SOURCE_DIR}/tests/tools/planted")
  # The planted bugs are made from the reference (tests/tools/make_planted.py), now and when either changes.
  set(_planted "${PROJECT_BINARY_DIR}/planted")
  file(GLOB _specs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/tools/planted/ch[0-9][0-9].json")
  set(_make_planted ${KINDLING_PYTHON} ${PROJECT_SOURCE_DIR}/tests/tools/make_planted.py
                    --root ${PROJECT_SOURCE_DIR} --out ${_planted})
  execute_process(COMMAND ${_make_planted} RESULT_VARIABLE _planted_rc)
  if(NOT _planted_rc EQUAL 0)
    message(FATAL_ERROR "tests/tools/make_planted.py failed (see above): a planted bug's `find` text no longer "
                        "occurs in its solutions/ file. Update tests/tools/planted/chNN.json with the reference.")
  endif()
  file(GLOB_RECURSE KP_PLANTED_FILES "${_planted}/ch[0-9][0-9]/*.cpp")
  file(GLOB_RECURSE _sol_all CONFIGURE_DEPENDS "${KINDLING_SOLUTIONS_DIR}/ch[0-9][0-9]/*")
  add_custom_command(OUTPUT ${KP_PLANTED_FILES} COMMAND ${_make_planted}
    DEPENDS ${_specs} ${_sol_all} ${PROJECT_SOURCE_DIR}/tests/tools/make_planted.py
    COMMENT "Planting the bugs of tests/tools/planted/ (build/planted)" VERBATIM)
  add_custom_target(kindling_planted DEPENDS ${KP_PLANTED_FILES})
  # The cheats of tests/tools/cheats/ (issue 13): one tree each.
  set(_cheats "")
  file(GLOB _cheat_dirs LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/tests/tools/cheats/*")
  foreach(_c IN LISTS _cheat_dirs)
    if(IS_DIRECTORY "${_c}")
      get_filename_component(_cn "${_c}" NAME)
      list(APPEND _cheats "cheat_${_cn}=${_c}")
    endif()
  endforeach()
  # The red-team suite's attacks (tests/grading/redteam/, run by its run_redteam.py): one tree each.
  file(GLOB _rt_dirs LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/tests/grading/redteam/*")
  foreach(_c IN LISTS _rt_dirs)
    file(GLOB _rt_chapters LIST_DIRECTORIES true "${_c}/ch[0-9][0-9]")
    if(IS_DIRECTORY "${_c}" AND _rt_chapters)
      get_filename_component(_cn "${_c}" NAME)
      list(APPEND _cheats "rt_${_cn}=${_c}")
    endif()
  endforeach()
  foreach(_spec "reference=${KINDLING_SOLUTIONS_DIR}" "planted=${_planted}"
                "calls=${PROJECT_SOURCE_DIR}/tests/tools/library_calls" ${_cheats})
    string(REGEX REPLACE "=.*" "" _name "${_spec}")
    string(REGEX REPLACE "^[^=]*=" "" _tdir "${_spec}")
    list(APPEND KINDLING_TREES ${_name})
    set(KP_TREE_DIR_${_name} "${_tdir}")
    list(APPEND KP_UNTRUSTED_TREES ${_name})
  endforeach()
  string(REGEX REPLACE "=[^;]*" "" _cheat_names "${_cheats}")
  set(KINDLING_GRADER_TREES stubs reference planted calls ${_cheat_names} ${KINDLING_GRADER_TREES})
endif()

# The pristine stubs, generated from solutions/ into <build>/stubs whenever a solution or a manifest
# changes (a handout ships them instead). Every chapter's, older-model ones too.
set(KP_STUB_FILES "")
if(NOT IS_DIRECTORY "${PROJECT_SOURCE_DIR}/tests/grading/stubs" AND IS_DIRECTORY "${KINDLING_SOLUTIONS_DIR}")
  file(GLOB_RECURSE _sol_files CONFIGURE_DEPENDS "${KINDLING_SOLUTIONS_DIR}/ch[0-9][0-9]/*")
  file(GLOB _manifests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/grading/ch[0-9][0-9]/exercises.json")
  foreach(_f IN LISTS _sol_files)
    file(RELATIVE_PATH _rel "${KINDLING_SOLUTIONS_DIR}" "${_f}")
    list(APPEND KP_STUB_FILES "${KP_TREE_DIR_stubs}/${_rel}")
  endforeach()
  add_custom_command(OUTPUT ${KP_STUB_FILES}
    COMMAND ${KINDLING_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/make_exercises.py --root ${PROJECT_SOURCE_DIR}
            --out ${KP_TREE_DIR_stubs}
    DEPENDS ${_sol_files} ${_manifests} "${PROJECT_SOURCE_DIR}/scripts/make_exercises.py"
    COMMENT "Generating the pristine stubs (build/stubs)" VERBATIM)
  if(NOT EXISTS "${KP_TREE_DIR_stubs}")
    # Once at configure time too, so that the stubs of older-model chapters can be globbed.
    execute_process(COMMAND ${KINDLING_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/make_exercises.py
                            --root ${PROJECT_SOURCE_DIR} --out ${KP_TREE_DIR_stubs})
  endif()
endif()
add_custom_target(kindling_stubs DEPENDS ${KP_STUB_FILES})

# kindling_piece_target(<out> <chapter> <exercise> <tree> [LENIENT])
# The OBJECT library holding one answer file of one tree (created on first use):
# kdp_<ch>_<ex>_<tree>. LENIENT (the grader's chapter programs where no reference exists to isolate
# exercises): a file that does not compile is replaced by its pristine stub, so the chapter's other
# exercises are still graded; the compiler's words stay in the log for the grader.
function(kindling_piece_target out ch ex tree)
  cmake_parse_arguments(P "LENIENT" "" "" ${ARGN})
  set(name kdp_${ch}_${ex}_${tree})
  if(P_LENIENT)
    set(name ${name}_lenient)
  endif()
  set(${out} ${name} PARENT_SCOPE)
  if(TARGET ${name})
    return()
  endif()
  if(NOT DEFINED KP_TREE_DIR_${tree})
    message(FATAL_ERROR "kindling_piece_target: unknown tree '${tree}' (known: ${KINDLING_TREES})")
  endif()
  set(src "${KP_TREE_DIR_${tree}}/${ch}/${KP_${ch}_${ex}_FILE}")
  if(NOT EXISTS "${src}" AND NOT tree STREQUAL "stubs")
    string(SUBSTRING "${ch}" 2 2 num)
    message(FATAL_ERROR "${src} is missing. In the full tree, `make exercises` writes it; in a handout, copy "
                        "the pristine stub from tests/grading/stubs/${ch}/ (or take the reference for this chapter: "
                        "REFERENCE=${num}, where it is available).")
  endif()
  add_library(${name} OBJECT EXCLUDE_FROM_ALL "${src}")
  target_link_libraries(${name} PRIVATE kindling_layer_settings)
  if(tree STREQUAL "stubs" AND KP_STUB_FILES)
    add_dependencies(${name} kindling_stubs)
  endif()
  if(tree STREQUAL "planted" AND TARGET kindling_planted)
    add_dependencies(${name} kindling_planted)
  endif()
  if(tree IN_LIST KP_UNTRUSTED_TREES)
    # Stubs leave parameters unused; a wall of warnings is not what a learner should see first.
    target_compile_options(${name} PRIVATE -Wno-unused-parameter -Wno-unused-variable -Wno-unused-but-set-variable)
    # Untrusted code (issue 26): compiled in the compile sandbox, which sees the system, kindling's public
    # headers, the private headers of the layers this chapter builds on, the generated headers and the
    # answer's own chapter folder only; then checked by the answer-file rules (scripts/piece_policy.py)
    # against the pristine stub's symbols. No compiler cache (scripts/compile_piece.py says why).
    set(stub "${KP_TREE_DIR_stubs}/${ch}/${KP_${ch}_${ex}_FILE}")
    set(launcher ${KINDLING_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/compile_piece.py
                 --log "${PROJECT_BINARY_DIR}/grading/logs/${name}.log" --piece ${ch}.${ex}
                 --chapter-dir "${KP_TREE_DIR_${tree}}/${ch}" --stub "${stub}"
                 --cache "${PROJECT_BINARY_DIR}/grading/policy"
                 --ro "${PROJECT_SOURCE_DIR}/lib/include" --ro "${PROJECT_BINARY_DIR}/lib/generated")
    get_property(closure GLOBAL PROPERTY KINDLING_LAYER_CLOSURE_${KP_${ch}_LAYER})
    if(NOT closure)
      set(closure ${KP_${ch}_LAYER})
    endif()
    foreach(l IN LISTS closure)
      list(APPEND launcher --ro "${PROJECT_SOURCE_DIR}/lib/src/${l}")
    endforeach()
    if(KP_STUB_FILES)
      add_dependencies(${name} kindling_stubs)
    endif()
    if(P_LENIENT)
      list(APPEND launcher --fallback "${stub}")
    endif()
    # The grader's own cheats that test the defences behind the rules (tests/tools/cheats/README.md).
    if(tree MATCHES "^cheat_" AND EXISTS "${KP_TREE_DIR_${tree}}/POLICY-OFF")
      list(APPEND launcher --no-policy)
    endif()
    list(APPEND launcher --)
    set_target_properties(${name} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
  endif()
endfunction()

# The tree a rule picks for one piece:
#   configured      KINDLING_REFERENCE chapters from solutions/, the others from exercises/
#   reference       solutions/ everywhere
#   tree:<T>        KINDLING_REFERENCE chapters from solutions/, the others from tree T
#   lenient:<T>     the same, with T's files compiled leniently (see kindling_piece_target)
function(_kindling_rule_tree out_tree out_lenient ch ex rule overrides)
  set(lenient OFF)
  if(rule STREQUAL "reference")
    set(tree solutions)
  else()
    if(rule STREQUAL "configured")
      set(tree exercises)
    elseif(rule MATCHES "^tree:(.*)$")
      set(tree ${CMAKE_MATCH_1})
    elseif(rule MATCHES "^lenient:(.*)$")
      set(tree ${CMAKE_MATCH_1})
      set(lenient ON)
    else()
      message(FATAL_ERROR "unknown piece rule '${rule}'")
    endif()
    if(ch IN_LIST KINDLING_REFERENCE_CHAPTERS)
      set(tree solutions)
      set(lenient OFF)
    endif()
  endif()
  foreach(o IN LISTS overrides)  # "ch01.ex3=exercises", "ch01.*=lenient:exercises"
    if(o MATCHES "^${ch}\\.(${ex}|\\*)=(lenient:)?(.*)$")
      set(tree ${CMAKE_MATCH_3})
      set(lenient OFF)
      if(CMAKE_MATCH_2)
        set(lenient ON)
      endif()
    endif()
  endforeach()
  set(${out_tree} ${tree} PARENT_SCOPE)
  set(${out_lenient} ${lenient} PARENT_SCOPE)
endfunction()

# kindling_piece_objects(<out> LAYERS <layer>... RULE <rule> [OVERRIDES chNN.exK=tree ...])
# $<TARGET_OBJECTS:...> of every piece whose chapter's layer is one of LAYERS.
function(kindling_piece_objects out)
  cmake_parse_arguments(A "" "RULE" "LAYERS;OVERRIDES" ${ARGN})
  set(objs "")
  set(untrusted "")
  foreach(ch IN LISTS KINDLING_PIECE_CHAPTERS)
    if(NOT KP_${ch}_LAYER IN_LIST A_LAYERS)
      continue()
    endif()
    foreach(ex IN LISTS KP_${ch}_EXERCISES)
      _kindling_rule_tree(tree lenient ${ch} ${ex} "${A_RULE}" "${A_OVERRIDES}")
      if(lenient)
        kindling_piece_target(t ${ch} ${ex} ${tree} LENIENT)
      else()
        kindling_piece_target(t ${ch} ${ex} ${tree})
      endif()
      if(tree IN_LIST KP_UNTRUSTED_TREES)
        list(APPEND untrusted $<TARGET_OBJECTS:${t}>)
      else()
        list(APPEND objs $<TARGET_OBJECTS:${t}>)
      endif()
    endforeach()
  endforeach()
  # A learner's objects go last: where one of them and the library both hold a weak (template or inline)
  # definition, the linker keeps the first -- the library's (scripts/piece_policy.py, "definitions").
  set(${out} ${objs} ${untrusted} PARENT_SCOPE)
endfunction()

# kindling_add_library_program(<target> LAYER <layer> RULE <rule> SOURCES <srcs/objects>...
#                              [OVERRIDES ...] [EXCLUDE_FROM_ALL])
# An executable linked with the core of <layer> and of every layer before it, and the pieces the rule
# picks — a library of its own, without going through the kindling_<layer> archives.
function(kindling_add_library_program target)
  cmake_parse_arguments(A "EXCLUDE_FROM_ALL" "LAYER;RULE" "SOURCES;OVERRIDES" ${ARGN})
  get_property(closure GLOBAL PROPERTY KINDLING_LAYER_CLOSURE_${A_LAYER})
  set(objs "")
  set(libs "")
  foreach(l IN LISTS closure)
    list(APPEND objs $<TARGET_OBJECTS:kindling_${l}_core>)
    get_property(l_objs GLOBAL PROPERTY KINDLING_LAYER_OBJECTS_${l})  # e.g. the cuda layer's nvcc objects
    list(APPEND objs ${l_objs})
    get_property(l_libs GLOBAL PROPERTY KINDLING_LAYER_LIBS_${l})
    list(APPEND libs ${l_libs})
  endforeach()
  kindling_piece_objects(pieces LAYERS ${closure} RULE "${A_RULE}" OVERRIDES ${A_OVERRIDES})
  set(exclude "")
  if(A_EXCLUDE_FROM_ALL)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  add_executable(${target} ${exclude} ${A_SOURCES} ${objs} ${pieces})
  # nvcc objects among them: the CUDA runtime comes from the layer's libs (CUDA::cudart), not CMake's.
  set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY None)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/include ${PROJECT_BINARY_DIR}/lib/generated)
  list(REMOVE_DUPLICATES libs)
  target_link_libraries(${target} PRIVATE ${libs})
endfunction()

# kindling_layer_is_reference(<out> <layer>): ON when every piece a program of <layer> links comes from
# solutions/ — the library is then the reference one, and its unit, parity and book tests apply. A
# learner's workspace (a handout, or REFERENCE=none) is tested by `make grade` instead: the library's
# own tests would only report the exercises that are not done yet.
function(kindling_layer_is_reference out layer)
  get_property(closure GLOBAL PROPERTY KINDLING_LAYER_CLOSURE_${layer})
  set(result ON)
  foreach(ch IN LISTS KINDLING_PIECE_CHAPTERS)
    if(KP_${ch}_LAYER IN_LIST closure AND NOT ch IN_LIST KINDLING_REFERENCE_CHAPTERS)
      set(result OFF)
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# ON when every layer is the reference one (the book, the consumer project and the benchmarks need it).
function(kindling_library_is_reference out)
  set(result ON)
  foreach(ch IN LISTS KINDLING_PIECE_CHAPTERS)
    if(NOT ch IN_LIST KINDLING_REFERENCE_CHAPTERS)
      set(result OFF)
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()
