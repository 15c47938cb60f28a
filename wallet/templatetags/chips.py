from django import template

from vipgame.numbers import chips

register = template.Library()
register.filter("chips", chips)

__all__ = ["chips", "register"]
