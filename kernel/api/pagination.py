from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    """``?page=n`` (from 1) and ``?page_size=`` up to 100; 20 by default."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
