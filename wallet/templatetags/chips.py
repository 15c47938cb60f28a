from django import template

from kernel.numbers import chips

register = template.Library()
register.filter("chips", chips)

__all__ = ["chips", "register"]
