// Tiến Lên terms: Vietnamese in every language.
export const COMBOS_VI = {
  single: "Rác", pair: "Đôi", triple: "Sám", straight: "Sảnh", three_pair_run: "3 đôi thông",
  quad: "Tứ quý", four_pair_run: "4 đôi thông",
};
export const TOI_TRANG_VI = {
  dragon: "Sảnh rồng", six_consecutive_pairs: "6 đôi thông", four_triples: "4 bộ ba",
  two_quads: "2 tứ quý", twelve_one_suit: "12 lá đồng chất", five_consecutive_pairs: "5 đôi thông",
  four_twos: "Tứ quý 2", six_pairs: "6 đôi",
};
