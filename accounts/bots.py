"""Bots' names (the pool: ``games.services.seats``)."""

# Bots look like the people they play with: ordinary Vietnamese names, no numbers.
BOT_GIVEN_NAMES = (
    "Minh Anh", "Quốc Bảo", "Thu Hà", "Văn Hùng", "Ngọc Lan", "Đức Minh", "Thanh Tâm", "Hoàng Nam",
    "Bích Ngọc", "Tuấn Kiệt", "Mai Phương", "Gia Huy", "Thùy Linh", "Quang Hải", "Kim Oanh",
    "Trung Kiên", "Hồng Nhung", "Đình Phúc", "Khánh Vy", "Minh Khoa", "Lan Chi", "Văn Toàn",
    "Thảo My", "Hữu Nghĩa", "Diệu Linh", "Công Vinh", "Phương Thảo", "Anh Tuấn", "Ngọc Hân",
    "Thành Đạt", "Hải Yến", "Bá Long", "Tú Anh", "Xuân Trường", "Hoài Thương", "Minh Triết",
    "Cẩm Tú", "Quang Vinh", "Thu Trang", "Đức Anh", "Bảo Ngọc", "Văn Lâm", "Thanh Hằng",
    "Nhật Minh", "Mỹ Duyên", "Tiến Dũng", "Kiều Trinh", "Hoàng Long",
)  # fmt: skip
BOT_FAMILY_NAMES = (
    "Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng", "Bùi", "Đỗ",
    "Hồ", "Ngô", "Dương", "Lý",
)  # fmt: skip


def bot_name(index: int) -> str:
    """The name of the pool's ``index``-th bot (from 0): a given name, then the
    same names with a family name in front; all different for the first
    ``len(BOT_GIVEN_NAMES) * (len(BOT_FAMILY_NAMES) + 1)`` bots."""
    rounds, given = divmod(index, len(BOT_GIVEN_NAMES))
    name = BOT_GIVEN_NAMES[given]
    if rounds:
        name = f"{BOT_FAMILY_NAMES[(rounds - 1) % len(BOT_FAMILY_NAMES)]} {name}"
    return name
