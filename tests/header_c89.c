/* The public header on its own in strict C89 (-std=c89 -pedantic -Werror; CTest's header_c89):
 * no trailing enumerator comma, no // comment, no declaration a C89 user's compiler refuses. */
#include <clnorm.h>

int main(void)
{
    clnorm_status st = CLNORM_SUCCESS;
    return st == CLNORM_INVALID_SHAPE ? 1 : 0;
}
