// Reads a half image (CL_HALF_FLOAT) filled with 3.98, writes what it read
// to a float buffer and twice it to a half image; the spec's
// ReferenceArguments hold the nearest halves, 3.98046875 and 7.9609375.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void himg(__read_only image2d_t src, __write_only image2d_t dst, __global float* f, const int width) {
    const int x = get_global_id(0), y = get_global_id(1);
    const float v = read_imagef(src, nearest, (int2)(x, y)).x;
    f[y * width + x] = v;
    write_imagef(dst, (int2)(x, y), (float4)(2.0f * v, 0.0f, 0.0f, 1.0f));
}
