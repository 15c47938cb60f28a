from django.contrib.auth.password_validation import validate_password
from django.db import transaction

from wallet.services import account_for_user, signup_grant

from .models import User


@transaction.atomic
def user_register(*, username: str, display_name: str, password: str) -> User:
    """Create a player with a wallet holding the sign-up grant."""
    user = User(username=username, display_name=display_name)
    validate_password(password, user)
    user.set_password(password)
    user.save()
    account_for_user(user=user)
    signup_grant(user=user)
    return user


@transaction.atomic
def bot_create(*, username: str, display_name: str) -> User:
    """A bot account: flagged, with an unusable password, so it can never log in."""
    user = User(username=username, display_name=display_name, is_bot=True)
    user.set_unusable_password()
    user.save()
    account_for_user(user=user)
    signup_grant(user=user)
    return user
