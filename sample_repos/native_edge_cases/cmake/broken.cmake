# Unbalanced parentheses: the set() below never closes.
set(BROKEN_LIST src/a.cu
add_executable(edge_tool src/tool.cc)
target_link_libraries(edge_tool PRIVATE edge_ops)
