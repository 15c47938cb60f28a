"""Django REST framework's own messages that our API can send (and the few of
Django's that DRF's fields and our query filters use and Django does not
translate), marked here so that ``make messages`` keeps them in our catalogue:
DRF's Vietnamese one is nearly empty. ``LOCALE_PATHS`` are read after the
apps' catalogues, so ours win for the same message.

Field errors (the ``details`` of ``invalid``) come from the field types of
our serializers and the validators DRF gives them; the others (parse,
authentication, permission, throttle, pagination) are replaced by our own
message in ``kernel.api.errors`` but are here too, so that no way out sends
one in English. "This field is required." is not here: it is also Django's
forms' message, which Django's catalogue translates.
``tests/api/test_field_error_language.py`` checks this list against DRF."""

from django.utils.translation import gettext_noop

DRF_MESSAGES = (
    # Every field
    gettext_noop("This field may not be null."),
    # BooleanField
    gettext_noop("Must be a valid boolean."),
    # CharField, RegexField (and their validators)
    gettext_noop("Not a valid string."),
    gettext_noop("This field may not be blank."),
    gettext_noop("Ensure this field has no more than {max_length} characters."),
    gettext_noop("Ensure this field has at least {min_length} characters."),
    gettext_noop("Surrogate characters are not allowed: U+{code_point:X}."),
    gettext_noop("Null characters are not allowed."),
    gettext_noop("This value does not match the required pattern."),
    # ChoiceField
    gettext_noop('"{input}" is not a valid choice.'),
    # IntegerField
    gettext_noop("A valid integer is required."),
    gettext_noop("Ensure this value is less than or equal to {max_value}."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("String value too large."),
    # DateField, DateTimeField
    gettext_noop("Date has wrong format. Use one of these formats instead: {format}."),
    gettext_noop("Expected a date but got a datetime."),
    gettext_noop("Datetime has wrong format. Use one of these formats instead: {format}."),
    gettext_noop("Expected a datetime but got a date."),
    gettext_noop('Invalid datetime for the timezone "{timezone}".'),
    gettext_noop("Datetime value out of range."),
    # DictField, JSONField, ListField, Serializer
    gettext_noop('Expected a dictionary of items but got type "{input_type}".'),
    gettext_noop("This dictionary may not be empty."),
    gettext_noop("Value must be valid JSON."),
    gettext_noop('Expected a list of items but got type "{input_type}".'),
    gettext_noop("This list may not be empty."),
    gettext_noop("Ensure this field has at least {min_length} elements."),
    gettext_noop("Ensure this field has no more than {max_length} elements."),
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
    # A date range of the query filters (Django's form field)
    gettext_noop("Enter a complete value."),
    # Exceptions
    gettext_noop("A server error occurred."),
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop("Not found."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Could not satisfy the request Accept header."),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
    # Token authentication, pagination
    gettext_noop("Invalid token header. No credentials provided."),
    gettext_noop("Invalid token header. Token string should not contain spaces."),
    gettext_noop("Invalid token header. Token string should not contain invalid characters."),
    gettext_noop("Invalid token."),
    gettext_noop("User inactive or deleted."),
    gettext_noop("Invalid page."),
)
