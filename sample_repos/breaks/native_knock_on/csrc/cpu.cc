int cpu() { return 0; }
