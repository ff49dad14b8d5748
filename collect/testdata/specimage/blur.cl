// A horizontal 3-point box blur that reads its input the way LOAD says:
// 0 from a buffer, 1 from a 2D image, 2 from a 1D image buffer (the same
// values each way: the spec fills all three from one seed).
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void blur(__global const float* in, __read_only image2d_t img, __read_only image1d_buffer_t lin,
                   __global float* out, const int width, const int height) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    float s = 0.0f;
    for (int d = -1; d <= 1; d++) {
        const int xx = clamp(x + d, 0, width - 1);
#if LOAD == 1
        s += read_imagef(img, smp, (int2)(xx, y)).x;
#elif LOAD == 2
        s += read_imagef(lin, y * width + xx).x;
#else
        s += in[y * width + xx];
#endif
    }
    out[y * width + x] = s / 3.0f;
}
