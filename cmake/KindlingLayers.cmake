# One static library per chapter. A layer may link only the layers that come before it in the
# book, so chapter 2's code can never call chapter 5's: kindling_add_layer() refuses anything else
# at configure time, and the linker refuses any symbol reached for without linking.
set(KINDLING_LAYER_ORDER tensor autograd nn data train amp debug cuda)
set_property(GLOBAL PROPERTY KINDLING_LAYERS "")

# kindling_add_layer(<name> SOURCES ... DEPENDS <earlier layers> [PRIVATE_LIBS ...])
function(kindling_add_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPENDS;PRIVATE_LIBS" ${ARGN})
  list(FIND KINDLING_LAYER_ORDER ${name} my_index)
  if(my_index LESS 0)
    message(FATAL_ERROR "kindling_add_layer: unknown layer '${name}' (known: ${KINDLING_LAYER_ORDER})")
  endif()
  foreach(dep IN LISTS L_DEPENDS)
    list(FIND KINDLING_LAYER_ORDER ${dep} dep_index)
    if(dep_index LESS 0 OR NOT dep_index LESS my_index)
      message(FATAL_ERROR "Layer '${name}' may not depend on '${dep}': a layer links only the layers "
                          "before it (${KINDLING_LAYER_ORDER}).")
    endif()
  endforeach()
  set(target kindling_${name})
  add_library(${target} STATIC ${L_SOURCES})
  add_library(Kindling::${target} ALIAS ${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/lib/include> $<INSTALL_INTERFACE:include>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/src)
  # xtensor stays out of the public headers (learners' compile times); only lib/src sees it.
  target_include_directories(${target} SYSTEM PRIVATE ${xtensor_INCLUDE_DIRS} ${CBLAS_INCLUDE_DIR})
  target_compile_definitions(${target} PRIVATE XTENSOR_USE_XSIMD)
  foreach(dep IN LISTS L_DEPENDS)
    target_link_libraries(${target} PUBLIC kindling_${dep})
  endforeach()
  target_link_libraries(${target} PRIVATE ${L_PRIVATE_LIBS})
  # The public headers use C++20 (concepts, designated initialisers): every target that links a layer,
  # inside this build or through an installed Kindling::kindling, compiles as C++20 at least.
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${target})
  install(TARGETS ${target} EXPORT KindlingTargets ARCHIVE DESTINATION lib)
  set_property(GLOBAL APPEND PROPERTY KINDLING_LAYERS ${target})
endfunction()
