int rocm() { return 0; }
