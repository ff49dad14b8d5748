__kernel void k(__global float *o) { o[get_global_id(0)] = 0.0f; }
