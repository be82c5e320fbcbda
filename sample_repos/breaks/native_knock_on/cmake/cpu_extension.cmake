Python_add_library(cpu_ops MODULE WITH_SOABI csrc/cpu.cc)
install(TARGETS cpu_ops LIBRARY DESTINATION kern)
