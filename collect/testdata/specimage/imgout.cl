// Writes a scaled copy of its input to a float image (CL_R) and an RGBA
// image of bytes (CL_UNORM_INT8). MODE 0 and 1 write the same pixels (1
// the byte image first); 2 leaves the last pixel of the float image
// unwritten; 3 writes other bytes.
__kernel void imgout(__global const float* in, __write_only image2d_t f, __write_only image2d_t u8,
                     const int width, const int height) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    const float v = in[y * width + x];
    const float4 rgba = (float4)(v, 0.5f * v, 1.0f - v, MODE == 3 ? 0.0f : 1.0f);
#if MODE == 1
    write_imagef(u8, (int2)(x, y), rgba);
#endif
#if MODE == 2
    if (x != width - 1 || y != height - 1)
#endif
    write_imagef(f, (int2)(x, y), (float4)(2.0f * v, 0.0f, 0.0f, 1.0f));
#if MODE != 1
    write_imagef(u8, (int2)(x, y), rgba);
#endif
}
