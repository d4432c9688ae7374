/*
 * banned.h: functions this codebase must not call, because each has a
 * bounded or safer replacement (snprintf, memcpy with a length, strtok_r).
 * Included last by every source file so a use fails to compile.
 */
#ifndef SP_BANNED_H
#define SP_BANNED_H

#define SP_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) SP_BANNED(strcpy)
#undef strcat
#define strcat(x, y) SP_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) SP_BANNED(strncpy)
#undef sprintf
#define sprintf(...) SP_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) SP_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) SP_BANNED(strtok)
#undef gets
#define gets(x) SP_BANNED(gets)

#endif
