// Reads an RGBA image of bytes (CL_UNORM_INT8) and one of floats, each
// from a buffer or an image as LOAD's bits say (1: the bytes, 2: the
// floats); every way gives the same output, the spec filling each buffer
// and its image from one seed.
__constant sampler_t at = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void rgba(__global const uchar4* u8, __read_only image2d_t u8img, __global const float4* f4,
                   __read_only image2d_t f4img, __global float* out, const int width, const int height) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
#if LOAD & 1
    const float4 a = read_imagef(u8img, at, (int2)(x, y));
#else
    const float4 a = convert_float4(u8[y * width + x]) / 255.0f;
#endif
#if LOAD & 2
    const float4 b = read_imagef(f4img, at, (int2)(x, y));
#else
    const float4 b = f4[y * width + x];
#endif
    out[y * width + x] = (a.x + a.y + a.z + a.w) + 10.0f * (b.x + 2.0f * b.y + 3.0f * b.z + 4.0f * b.w);
}
