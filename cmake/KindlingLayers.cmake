# One static library per chapter. A layer may link only the layers that come before it in the
# book, so chapter 2's code can never call chapter 5's: kindling_add_layer() refuses anything else
# at configure time, and the linker refuses any symbol reached for without linking.
#
# A layer is two things: its core (every .cpp of lib/src/<layer>/, an OBJECT library
# kindling_<layer>_core) and the exercise pieces of its chapter (the learner's or the reference
# answers, see cmake/KindlingPieces.cmake). The static library kindling_<layer> is both together;
# the grader links the same core objects with other choices of pieces (kindling_add_library_program).
set(KINDLING_LAYER_ORDER tensor autograd nn data train amp debug cuda vision jit distributed text)
set_property(GLOBAL PROPERTY KINDLING_LAYERS "")

# What every file compiled into a layer sees (the core, and every answer file, reference or learner's):
# the public headers, lib/src for internal headers, xtensor as system headers. Answer files never see
# Catch2 or the tests: they are library code.
add_library(kindling_layer_settings INTERFACE)
target_include_directories(kindling_layer_settings INTERFACE
  ${PROJECT_SOURCE_DIR}/lib/include ${PROJECT_SOURCE_DIR}/lib/src ${PROJECT_BINARY_DIR}/lib/generated)
target_include_directories(kindling_layer_settings SYSTEM INTERFACE ${xtensor_INCLUDE_DIRS} ${CBLAS_INCLUDE_DIR})
target_compile_definitions(kindling_layer_settings INTERFACE XTENSOR_USE_XSIMD)
target_link_libraries(kindling_layer_settings INTERFACE nlohmann_json::nlohmann_json)

# kindling_add_layer(<name> SOURCES ... DEPENDS <earlier layers> [PRIVATE_LIBS ...])
function(kindling_add_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPENDS;PRIVATE_LIBS" ${ARGN})
  list(FIND KINDLING_LAYER_ORDER ${name} my_index)
  if(my_index LESS 0)
    message(FATAL_ERROR "kindling_add_layer: unknown layer '${name}' (known: ${KINDLING_LAYER_ORDER})")
  endif()
  set(closure ${name})
  foreach(dep IN LISTS L_DEPENDS)
    list(FIND KINDLING_LAYER_ORDER ${dep} dep_index)
    if(dep_index LESS 0 OR NOT dep_index LESS my_index)
      message(FATAL_ERROR "Layer '${name}' may not depend on '${dep}': a layer links only the layers "
                          "before it (${KINDLING_LAYER_ORDER}).")
    endif()
    get_property(dep_closure GLOBAL PROPERTY KINDLING_LAYER_CLOSURE_${dep})
    list(APPEND closure ${dep_closure})
  endforeach()
  # The layers a program of this layer links, in book order (tensor first).
  set(ordered "")
  foreach(l IN LISTS KINDLING_LAYER_ORDER)
    if(l IN_LIST closure)
      list(APPEND ordered ${l})
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY KINDLING_LAYER_CLOSURE_${name} ${ordered})
  set_property(GLOBAL PROPERTY KINDLING_LAYER_LIBS_${name} ${L_PRIVATE_LIBS})

  set(target kindling_${name})
  add_library(${target}_core OBJECT ${L_SOURCES})
  target_link_libraries(${target}_core PRIVATE kindling_layer_settings ${L_PRIVATE_LIBS})
  # The pieces of this layer's chapter, from solutions/ or exercises/ as KINDLING_REFERENCE says.
  kindling_piece_objects(pieces LAYERS ${name} RULE configured)
  add_library(${target} STATIC $<TARGET_OBJECTS:${target}_core> ${pieces})
  add_library(Kindling::${target} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/lib/include> $<INSTALL_INTERFACE:include>)
  foreach(dep IN LISTS L_DEPENDS)
    target_link_libraries(${target} PUBLIC kindling_${dep})
  endforeach()
  target_link_libraries(${target} PRIVATE ${L_PRIVATE_LIBS})
  # The public headers use C++20 (concepts, designated initialisers): every target that links a layer,
  # inside this build or through an installed Kindling::kindling, compiles as C++20 at least.
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${target} LINKER_LANGUAGE CXX)
  install(TARGETS ${target} EXPORT KindlingTargets ARCHIVE DESTINATION lib)
  set_property(GLOBAL APPEND PROPERTY KINDLING_LAYERS ${target})
endfunction()
