# Compile a text file into a C string:
#   cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P embed.cmake
# makes `const char SYMBOL[]` holding FILE's bytes and a final NUL.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}" "/* ${base}, compiled in by cmake/embed.cmake: edit that file, not this */\n"
	"const char ${NAME}[] = {${hex}0};\n")
