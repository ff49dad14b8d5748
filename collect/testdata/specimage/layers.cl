// Scales each image of a 2D image array (image2d_array_t) into an RGBA
// array, one work-item a pixel of every image. MODE 0 and 1 go through the
// images in two orders; 2 leaves the last image's last pixel unwritten.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void layers(__read_only image2d_array_t maps, __write_only image2d_array_t scaled,
                     const int width, const int height, const int count) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    for (int i = 0; i < count; i++) {
        const int m = MODE == 1 ? count - 1 - i : i;
        if (MODE == 2 && m == count - 1 && x == width - 1 && y == height - 1) {
            continue;
        }
        const float v = read_imagef(maps, nearest, (int4)(x, y, m, 0)).x;
        write_imagef(scaled, (int4)(x, y, m, 0), (float4)(v, (float)m * v, 1.0f, 0.5f));
    }
}
