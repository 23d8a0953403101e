# A script that sets another package's variables ($Data::Dumper::Indent,
# $Carp::Verbose, a glob assignment, a package it makes) leaves nothing
# for the next script of the same worker (doc/CGI-HAZARDS.md B13): in
# every in-process mode, and in auto mode (the default), a second script
# run after it in the same worker prints what it prints under plain CGI.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script run_cgi parse_cgi_output);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'setter.cgi', <<'CGI');
#!/usr/bin/perl
use strict;
use Data::Dumper;
use Carp ();
use Text::Wrap ();
$Data::Dumper::Indent = 1;
$Data::Dumper::Sortkeys = 1;
$Carp::Verbose = 1;
$Text::Wrap::columns = 20;
push @Text::Wrap::ISA, 'Carp';
*Text::Wrap::wrap = sub { 'patched' };
@Made::Here::list = (1, 2);
print "Content-Type: text/plain\n\n", Dumper([1, [2]]);
CGI
put_script($root, 'reader.cgi', <<'CGI');
#!/usr/bin/perl
use strict;
use Data::Dumper;
use Carp ();
use Text::Wrap ();
no warnings 'once';
print "Content-Type: text/plain\n\n", Dumper([1, [2]]);
print 'sortkeys=', $Data::Dumper::Sortkeys // 'undef', "\n";
print 'verbose=', $Carp::Verbose // 'undef', "\n";
print 'columns=', $Text::Wrap::columns, "\n";
print 'isa=', join(',', @Text::Wrap::ISA), "\n";
print 'wrap=', Text::Wrap::wrap('', '', 'a b'), "\n";
print 'made=', scalar(@Made::Here::list), "\n";
CGI

# set by a package-less library the script requires (the script names none)
put_script($root, 'setlib.pl', "\$Data::Dumper::Indent = 1;\n\$Carp::Verbose = 1;\n1;\n");
put_script($root, 'lib-setter.cgi', <<'CGI');
#!/usr/bin/perl
use strict;
use Data::Dumper;
require './setlib.pl';
print "Content-Type: text/plain\n\n", Dumper([1, [2]]);
CGI

# set while compiling: what auto mode sends to a process of its own
put_script($root, 'begin.cgi', <<'CGI');
#!/usr/bin/perl
use strict;
use Data::Dumper;
BEGIN { $Data::Dumper::Indent = 1; }
print "Content-Type: text/plain\n\n", Dumper([1, [2]]);
CGI

# through a name made at run time: what auto mode sends to a process of its own too
put_script($root, 'symbolic.cgi', <<'CGI');
#!/usr/bin/perl
use strict;
use Data::Dumper;
my $module = join '::', qw(Data Dumper);
{ no strict 'refs'; ${"${module}::Indent"} = 1; }
print "Content-Type: text/plain\n\n", Dumper([1, [2]]);
CGI

my $plain = parse_cgi_output(run_cgi(script => "$root/reader.cgi", method => 'GET')->{stdout});
like $plain->{body}, qr/verbose=0/, 'plain CGI: the reader sees the modules\' defaults';

for my $mode (qw(registry perlrun auto)) {
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    is get_script($server, 'reader.cgi')->{body}, $plain->{body},
        "$mode: the reader, first, prints what plain CGI prints";
    like get_script($server, 'setter.cgi')->{body}, qr/\A\$VAR1 = \[\n  1,/, "$mode: the setter runs with its settings";
    is get_script($server, 'reader.cgi')->{body}, $plain->{body},
        "$mode: the reader, after the setter in the same worker, too";
    like get_script($server, 'setter.cgi')->{body}, qr/\A\$VAR1 = \[\n  1,/,
        "$mode: the setter's second run, with its settings again";
    is get_script($server, 'reader.cgi')->{body}, $plain->{body}, "$mode: ... and the reader after it";
    like get_script($server, 'lib-setter.cgi')->{body}, qr/\A\$VAR1 = \[\n  1,/,
        "$mode: a script whose library sets them runs with its settings";
    is get_script($server, 'reader.cgi')->{body}, $plain->{body}, "$mode: ... and the reader after it is plain CGI's";

    if ($mode eq 'auto') {
        like get_script($server, 'begin.cgi')->{body}, qr/\A\$VAR1 = \[\n  1,/,
            'auto: a script that sets it while compiling runs with its setting';
        like $server->log, qr{begin\.cgi runs in fork mode: B13}, '... in fork mode, for B13';
        is get_script($server, 'reader.cgi')->{body}, $plain->{body},
            '... and the reader after it prints what plain CGI prints';
        like get_script($server, 'symbolic.cgi')->{body}, qr/\A\$VAR1 = \[\n  1,/,
            'auto: a script that sets it through a name made at run time runs with its setting';
        like $server->log, qr{symbolic\.cgi runs in fork mode: B13}, '... in fork mode, for B13';
        is get_script($server, 'reader.cgi')->{body}, $plain->{body}, '... and the reader after it is plain CGI\'s';
    }
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
