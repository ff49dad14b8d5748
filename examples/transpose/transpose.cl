// A tiled matrix transpose: out (width rows of height) = in (height rows of
// width) transposed. Each work-group moves a tile of TILE_X columns by
// TILE_Y*WPT rows; each work-item WPT elements. With USE_LOCAL the tile
// passes through local memory (PAD adds a column against bank conflicts),
// so that both the reads and the writes are coalesced.
__kernel void transpose(__global const float* restrict in,
                        __global float* restrict out,
                        const int width, const int height) {
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx = get_group_id(0) * TILE_X;
    const int gy = get_group_id(1) * TILE_Y * WPT;
#if USE_LOCAL
    __local float tile[TILE_Y * WPT][TILE_X + PAD];
    for (int w = 0; w < WPT; w++) {
        const int x = gx + lx, y = gy + ly + w * TILE_Y;
        if (x < width && y < height)
            tile[ly + w * TILE_Y][lx] = in[y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int id = ly * TILE_X + lx;
    for (int w = 0; w < WPT; w++) {
        const int e = id + w * TILE_X * TILE_Y;
        const int orow = e / (TILE_Y * WPT), ocol = e % (TILE_Y * WPT);
        const int x = gx + orow, y = gy + ocol;
        if (x < width && y < height)
            out[x * height + y] = tile[ocol][orow];
    }
#else
    for (int w = 0; w < WPT; w++) {
        const int x = gx + lx, y = gy + ly + w * TILE_Y;
        if (x < width && y < height)
            out[x * height + y] = in[y * width + x];
    }
#endif
}
