from ..services.conftest import money_checked

__all__ = ["money_checked"]
