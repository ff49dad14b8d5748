// Reads an RGBA image of bytes as integers (CL_UNSIGNED_INT8, 0 to 255)
// and one of signed bytes (CL_SIGNED_INT8), and writes their sum to an
// image of uint (CL_UNSIGNED_INT32) and a mix of them to an RGBA image of
// short (CL_SIGNED_INT16). MODE 0 and 1 write the same pixels (1 the
// short image first); 2 writes another sum at one pixel; 3 another mix.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void intimg(__read_only image2d_t rgba, __read_only image2d_t sgn, __write_only image2d_t sum,
                     __write_only image2d_t mix, const int width, const int height) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    const uint4 p = read_imageui(rgba, nearest, (int2)(x, y));
    const int s = read_imagei(sgn, nearest, (int2)(x, y)).x;
    const int4 m = (int4)(s, -s * (int)p.y, (int)p.z - 300, MODE == 3 && x == 1 ? 8 : 7);
#if MODE == 1
    write_imagei(mix, (int2)(x, y), m);
#endif
    uint total = p.x + p.y + p.z + p.w + (uint)(s + 128);
#if MODE == 2
    if (x == width - 1 && y == height - 1) total += 1;
#endif
    write_imageui(sum, (int2)(x, y), (uint4)(total, 0, 0, 1));
#if MODE != 1
    write_imagei(mix, (int2)(x, y), m);
#endif
}
