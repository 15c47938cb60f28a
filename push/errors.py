from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError


class SubscriptionUnknown(ServiceError):
    code = "subscription_not_found"
    template = _("You have no such push subscription.")
    status = 404


class SubscriptionInvalid(ServiceError):
    code = "invalid_subscription"
    template = _("This push subscription is not valid: %(why)s")
    status = 400
